print("deckctl")
