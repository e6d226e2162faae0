"""The field's verbs (demo, stress, bench, lease): modules of the command tree like lab/commands/'s,
named by course.toml's `commands`, so that the engine imports none of them by name."""
