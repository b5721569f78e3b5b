print("recipes: the shell is not built yet")
