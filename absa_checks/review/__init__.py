"""The review page, a front door beside the CLI: `absa-checks review FILE` serves a local page over a
candidates file (accept, reject or edit each candidate; docs/suites.md, "Reviewing") or an audit sheet
(answer each item). `server.py` serves and writes; `candidates_mode.py` and `audit_mode.py` turn a file
into the page's items and apply one decision; `marking.py` makes the sentences' HTML; `page.html` is the
page (inline CSS and JavaScript, no external assets)."""
