final class ContextCore {}
