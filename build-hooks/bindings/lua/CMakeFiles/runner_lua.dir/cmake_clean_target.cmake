file(REMOVE_RECURSE
  "librunner_lua.a"
)
