file(REMOVE_RECURSE
  "librunner_data.a"
)
