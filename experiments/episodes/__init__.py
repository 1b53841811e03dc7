"""One task, one planner: ``loop.run_episode``/``run_many`` alternate planner and sandbox until ``finish``
or T_max and return ``EpisodeResult``s with their verdicts; ``env.MobilePAEnv`` is the same loop shaped
as a gymnasium environment for RL users."""
