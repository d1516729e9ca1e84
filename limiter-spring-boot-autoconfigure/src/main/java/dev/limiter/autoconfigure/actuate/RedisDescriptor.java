package dev.limiter.autoconfigure.actuate;

/**
 * Whether Redis decides now (false while the failure policy does), and how many instances share
 * each limit: counted by their heartbeats in Redis, or configured.
 */
public record RedisDescriptor(boolean available, int instances, boolean instancesCounted) {
}
