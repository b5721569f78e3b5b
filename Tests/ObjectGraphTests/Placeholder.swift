// Placeholder until the core tests land.
