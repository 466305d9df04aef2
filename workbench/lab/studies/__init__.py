"""The shipped studies, one module per study (``lab/catalogue.py`` lists them): each reproduces a
result of one of the papers, and its ``setup`` says what the paper gives and every choice it leaves
open; the report prints it beside the results."""
