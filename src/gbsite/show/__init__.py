"""`gbsite show GBxxxx`: one id's page in the terminal (page.py the data, text.py the text)."""
