// The parsed form of a template: expression and statement nodes, each with its source line so
// that an error while rendering names the line of the template that caused it.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/jinja/value.h"

namespace runner::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    kLiteral,   // value
    kName,      // name
    kList,      // args; tuple when `tuple`
    kDict,      // kwargs' keys are evaluated from args (key, value pairs alternate in args)
    kAttr,      // args[0].name
    kItem,      // args[0][args[1]]
    kSlice,     // args[0][args[1]:args[2]:args[3]], absent parts null
    kCall,      // args[0](args[1:], kwargs)
    kFilter,    // args[0] | name(args[1:], kwargs)
    kTest,      // args[0] is [not] name(args[1:])
    kUnary,     // name ("not", "-", "+") args[0]
    kBinary,    // args[0] name args[1]: + - * / // % ** ~ and or in "not in"
    kCompare,   // args[0] ops[0] args[1] ops[1] args[2] ... (chained like Python)
    kCondition  // args[1] if args[0] else args[2] (args[2] null: undefined)
  };
  Kind kind;
  int line;
  Value value;
  std::string name;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  std::vector<std::string> ops;
  bool flag = false;  // kList: a tuple; kTest: negated ("is not")
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Stmt {
  enum class Kind {
    kText,        // text
    kOutput,      // {{ exprs[0] }}
    kIf,          // exprs: conditions; bodies: one per condition, then the else body
    kFor,         // names: targets; exprs[0]: iterable, exprs[1]: filter (may be null); bodies: body, else body
    kSet,         // names: targets, or names[0].attr = exprs[0] when `attr` is set
    kSetBlock,    // names[0] = rendered bodies[0]
    kMacro,       // text: name; names: parameters; exprs: their defaults (null: none); bodies[0]
    kGeneration,  // bodies[0]: assistant text (transformers' {% generation %} extension)
    kBreak,
    kContinue
  };
  Kind kind;
  int line;
  std::string text, attr;
  std::vector<std::string> names;
  std::vector<ExprPtr> exprs;
  std::vector<Body> bodies;
};

struct Program {
  Body body;
  bool has_generation = false;  // contains {% generation %} blocks
};

}  // namespace runner::jinja
