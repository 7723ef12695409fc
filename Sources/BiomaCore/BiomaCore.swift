// Placeholder: the core lands here.
