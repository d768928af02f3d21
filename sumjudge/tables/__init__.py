"""Tables 1-9 in the long form of the paper's published.csv, plus LaTeX."""
