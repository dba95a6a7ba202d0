"""smartreader: a desktop feed reader with smart polling."""

__version__ = "0.1.0"
PROJECT_URL = "https://github.com/smartreader/smartreader"
USER_AGENT = f"smartreader/{__version__} (+{PROJECT_URL})"
