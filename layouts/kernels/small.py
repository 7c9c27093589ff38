"""Small channel counts (placeholder)."""


def try_small(d, s, plan, nth, run):
    return False
