/// The framework module.
