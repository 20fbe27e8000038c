file(REMOVE_RECURSE
  "librunner_optim.a"
)
