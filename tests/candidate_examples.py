"""The examples the frozen-variants, audit and Label Studio tests generate their candidates from (units a, b, c:
a two-aspect contrast, two aspects of one polarity, a single aspect); each test file adds its own units."""

EXAMPLES_ABC = """\
examples:
  - id: a
    sentence: The burgers were delicious, but the fries were soggy.
    aspect: burgers
    polarity: positive
    aspects:
      - term: fries
        polarity: negative
  - id: b
    sentence: The soup was cold and the bread was stale.
    aspect: soup
    polarity: negative
    aspects:
      - term: bread
        polarity: negative
  - id: c
    sentence: The pasta was great.
    aspect: pasta
    polarity: positive
"""
