file(REMOVE_RECURSE
  "librunner_core.a"
)
