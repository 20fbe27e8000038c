return { datasets = { train = require("runner.data").text("../outside.txt", { block_size = 2 }) } }
