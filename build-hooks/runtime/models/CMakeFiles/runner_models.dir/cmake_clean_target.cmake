file(REMOVE_RECURSE
  "librunner_models.a"
)
