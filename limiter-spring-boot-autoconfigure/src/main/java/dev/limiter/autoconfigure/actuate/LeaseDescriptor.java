package dev.limiter.autoconfigure.actuate;

/** A limiter's lease: the most permits a call on a hot key reserves beyond its own, and for how long. */
public record LeaseDescriptor(long permits, String ttl) {
}
