file(REMOVE_RECURSE
  "librunner_io.a"
)
