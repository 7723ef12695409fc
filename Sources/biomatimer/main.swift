print("biomatimer")
