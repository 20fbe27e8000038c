-- The recipe environment, run once per process by LuaState with the trusted globals.
-- Recipes and the modules they require each get a fresh environment whose reads fall
-- back to a fixed set of safe globals and whose writes are errors: a typo'd or forgotten
-- `local` fails at its line instead of leaking state between recipes.
local cfg = ...
local loadfile, setfenv, setmetatable, getmetatable, error, type, pairs, ipairs, tostring, tonumber, select =
  loadfile, setfenv, setmetatable, getmetatable, error, type, pairs, ipairs, tostring, tonumber, select
local io_open, string_gsub, string_match, table_concat, table_insert = io.open, string.gsub, string.match, table.concat, table.insert

local function copy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  return out
end

local safe = {
  assert = assert, error = error, ipairs = ipairs, pairs = pairs, next = next, pcall = pcall, xpcall = xpcall,
  select = select, tonumber = tonumber, tostring = tostring, type = type, unpack = unpack, rawget = rawget,
  rawset = rawset, rawequal = rawequal, setmetatable = setmetatable, getmetatable = getmetatable,
  math = copy(math), string = copy(string), table = copy(table),
  os = setmetatable({ time = os.time, clock = os.clock, date = os.date, getenv = os.getenv }, {
    __index = function(_, k)
      error("os." .. tostring(k) .. " is not available to recipes: they cannot run programs or touch files directly "
            .. "(use the runner.data readers, models.load_weights, module:save)", 2)
    end }),
  print = cfg.print,
}
-- Libraries a recipe never gets (also with require): say so instead of "undefined global".
local withheld = { io = true, debug = true, ffi = true, package = true, jit = true, load = true, loadstring = true,
                   dofile = true, loadfile = true, getfenv = true, setfenv = true, collectgarbage = true }

local function new_env()
  return setmetatable({}, {
    __index = function(_, k)
      local v = safe[k]
      if v == nil and withheld[k] then
        error("'" .. tostring(k) .. "' is not available to recipes: they cannot run programs, open files, load native code "
              .. "or reach the interpreter's internals", 2)
      end
      if v == nil then error("undefined global '" .. tostring(k) .. "'", 2) end
      return v
    end,
    __newindex = function(_, k)
      error("assignment to undeclared global '" .. tostring(k) .. "' (use local)", 2)
    end,
    __metatable = false,
  })
end

local recipe_dir = "."
local loaded = {}

local function file_exists(path)
  local f = io_open(path, "r")
  if f then f:close() return true end
  return false
end

local function run_file(path, ...)
  local chunk, err = loadfile(path)
  if not chunk then error(err, 0) end
  setfenv(chunk, new_env())
  return chunk(...)
end

local function require(name)
  if type(name) ~= "string" then error("require expects a module name", 2) end
  local builtin = cfg.modules[name]
  if builtin ~= nil then return builtin end
  if withheld[name] or name == "os" then
    error("module '" .. name .. "' is not available to recipes: they cannot run programs, open files or load native code", 2)
  end
  if loaded[name] ~= nil then return loaded[name] end
  local rel = string_gsub(name, "%.", "/")
  local dirs, tried = { recipe_dir }, {}
  for _, d in ipairs(cfg.lib_dirs) do table_insert(dirs, d) end
  for _, dir in ipairs(dirs) do
    local path = dir .. "/" .. rel .. ".lua"
    if file_exists(path) then
      local result = run_file(path, name)
      if result == nil then result = true end
      loaded[name] = result
      return result
    end
    table_insert(tried, path)
  end
  error("module '" .. name .. "' not found (looked for " .. table_concat(tried, ", ") .. ")", 2)
end
safe.require = require

-- require "runner.recipe"
local recipe = {}

local function is_plain_table(v) return type(v) == "table" and getmetatable(v) == nil end
local function is_list(t)
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k > n or k % 1 ~= 0 then return false end
  end
  return true
end

-- recipe.extend(base, overrides): a new table; nested tables merge key by key, lists and
-- everything else in `overrides` replace what `base` had.
function recipe.extend(base, overrides)
  if not is_plain_table(base) then error("recipe.extend: base must be a table", 2) end
  if overrides == nil then overrides = {} end
  if not is_plain_table(overrides) then error("recipe.extend: overrides must be a table", 2) end
  local out = copy(base)
  for k, v in pairs(overrides) do
    local old = out[k]
    if is_plain_table(v) and is_plain_table(old) and not is_list(v) and not is_list(old) then
      out[k] = recipe.extend(old, v)
    else
      out[k] = v
    end
  end
  return out
end

-- recipe.path("data.jsonl"): a path next to the recipe file (relative paths elsewhere are
-- relative to the current directory, like every command-line tool).
function recipe.path(rel)
  if type(rel) ~= "string" then error("recipe.path expects a string", 2) end
  if string_match(rel, "^/") then return rel end
  return recipe_dir .. "/" .. rel
end

-- recipe.options{ data = "input.txt", block_size = 64 }: recipe-specific settings with
-- defaults, overridable on the command line (--data other.txt). Types follow the defaults.
function recipe.options(defaults)
  if not is_plain_table(defaults) then error("recipe.options expects a table of defaults", 2) end
  local out = {}
  for k, default in pairs(defaults) do
    if type(k) ~= "string" then error("recipe.options: names must be strings", 2) end
    if cfg.arg_names[k] then error("recipe.options: '" .. k .. "' is a training argument; set it in args", 2) end
    local text = cfg.cli_options[k]
    cfg.declared[k] = true
    if text == nil then
      out[k] = default
    elseif cfg.bare_options[k] and type(default) ~= "boolean" then
      error("--" .. k .. " needs a value (a " .. type(default) .. ", default " .. tostring(default) .. ")", 0)
    elseif type(default) == "number" then
      local v = tonumber(text)
      if v == nil then error("--" .. k .. ": expected a number, got \"" .. text .. "\"", 0) end
      out[k] = v
    elseif type(default) == "boolean" then
      if text == "true" or text == "1" or text == "yes" then out[k] = true
      elseif text == "false" or text == "0" or text == "no" then out[k] = false
      else error("--" .. k .. ": expected true or false, got \"" .. text .. "\"", 0) end
    else
      out[k] = text
    end
  end
  return out
end

cfg.modules["runner.recipe"] = recipe
safe.torch = cfg.modules["runner.torch"]
safe.nn = cfg.modules["runner.nn"]
safe.F = cfg.modules["runner.F"]

-- Runs a recipe file; returns what it returns.
return function(path)
  recipe_dir = string_match(path, "^(.*)/[^/]*$") or "."
  recipe.dir = recipe_dir
  return run_file(path)
end
