"""The checks of `scripts/check-census-real.py`, one concern a module (issue 50).

That script is the entry point (its docstring says what is checked, and how to run it); this
package holds the code it runs, split so that each part can be read on its own: `common` (the
settings, queries and targets every check shares), `zoekt` (raw Zoekt requests, the expected
answers), `queries` (the text of the tools' Zoekt queries and what a filter selects), `pager`
(a pager sidecar and what a page says), then one module per must-show (`pages`: 1 and 2,
`heavy`: 3, `reach`: 4, `count`: 5) and `report` (the Markdown report). Imports go one way
(a check imports `pager`, `queries`, `zoekt` and `common`; `reach` also takes
`repeated_refinement` from `pages`); nothing here runs on import.
"""
