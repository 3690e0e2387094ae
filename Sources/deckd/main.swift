print("deckd")
