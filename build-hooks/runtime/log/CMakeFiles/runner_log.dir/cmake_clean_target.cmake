file(REMOVE_RECURSE
  "librunner_log.a"
)
