"""Deciders choose the next action. All share the `Decider` interface in `base`."""
