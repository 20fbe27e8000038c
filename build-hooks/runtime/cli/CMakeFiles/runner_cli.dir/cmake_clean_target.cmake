file(REMOVE_RECURSE
  "librunner_cli.a"
)
