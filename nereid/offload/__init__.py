"""CPU-heavy pure work off the event loop, in worker processes (architecture §8).

`jobs` holds what a worker runs (pure layers only, so a worker starts light);
`dispatch` is the loop side: when to hand work off, budgets, and the regex bound.
"""
