"""An engine that executes TLA+ text: parser, evaluator, explicit-state explorer."""
