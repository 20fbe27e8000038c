file(REMOVE_RECURSE
  "librunner_train.a"
)
