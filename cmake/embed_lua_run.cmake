file(READ ${IN} text)
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\nnamespace runner::lua {\nextern const char* const ${SYMBOL};\nconst char* const ${SYMBOL} = R\"RUNNERLUA(${text})RUNNERLUA\";\n}\n")
