"""``arena serve``: tables in the browser, people and models at one game, live (docs/serve.md)."""
