package dev.limiter.gateway;

/** The check of an exact limit across gateway instances: every instance together admitted exactly the limit. */
final class LimitCheck {

    private LimitCheck() {
    }

    static void assertExact(String what, int admitted, int limit) {
        if (admitted != limit) {
            throw new AssertionError(what + ": the gateways together admitted " + admitted + " requests, the limit is " + limit);
        }
    }
}
