package dev.limiter.autoconfigure.actuate;

/**
 * Why a request was not served, as an HTTP client gets it: the status, its reason phrase, and a message
 * naming what was wrong (the field, the value, the limiter or plan) and what to send instead.
 */
public record ErrorDescriptor(int status, String error, String message) {
}
