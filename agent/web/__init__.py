"""`opsagent serve`: the inbox as a chat, live runs and the audit view in the browser.

Modules: `live` (what every run is doing, from the store and its transcript), `thread` (a run's
messages), `auth` (sessions, CSRF), `actions` (replies and starting runs), `app` (the routes).
"""
