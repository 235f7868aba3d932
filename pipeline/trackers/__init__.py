"""Experiment trackers (`[log] mlflow / tensorboard = true`): each generation's row of
generations.parquet sent as metrics with step = generation, as EvoTorch's loggers
hear its searcher. A tracker is a hook of the run loop, like the progress bar; it
never changes what the run computes, and one that is down or not installed is one
warning line, the run goes on."""

from .hook import TrackingHook, start_tracking

__all__ = ["TrackingHook", "start_tracking"]
