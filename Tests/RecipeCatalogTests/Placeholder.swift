// Placeholder until the catalogue tests land.
