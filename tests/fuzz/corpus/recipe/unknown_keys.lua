return { args = { output_dir = "o", learning_rat = 1 }, modle = 1 }
