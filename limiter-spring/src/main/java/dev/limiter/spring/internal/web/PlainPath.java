package dev.limiter.spring.internal.web;

import org.jspecify.annotations.Nullable;

/**
 * A rule's path pattern that is plain text, {@code /api/orders}, or plain text followed by
 * {@code /**}, {@code /api/**}: what most rules are. Such a pattern matches a request path that
 * needs no decoding (no {@code %} escapes, no {@code ;} parameters) exactly when the text says so, as
 * Spring's {@code PathPattern} would: so a servlet request is matched by comparing text, without
 * parsing its path into segments first (a fifth of a rule's cost per request, measured with
 * {@code RequestPathBenchmark}). Any other pattern or path is matched by {@code PathPattern}.
 */
final class PlainPath {

    /** The text before {@code /**}, or the whole pattern; empty for {@code /**}. */
    private final String text;

    /** Whether the pattern ends in {@code /**}: the text itself and everything under it. */
    private final boolean subtree;

    private PlainPath(String text, boolean subtree) {
        this.text = text;
        this.subtree = subtree;
    }

    /** {@code pattern} (trimmed, checked by PathPattern already) as plain text, or null when it is not. */
    static @Nullable PlainPath of(String pattern) {
        boolean subtree = pattern.endsWith("/**");
        String text = subtree ? pattern.substring(0, pattern.length() - 3) : pattern;
        if (!subtree && text.isEmpty()) {
            return null;
        }
        // Segments of unreserved characters only, none empty: no wildcard, variable, escape or parameter.
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean separator = c == '/';
            if (separator ? (i + 1 == text.length() || text.charAt(i + 1) == '/') : !isUnreserved(c)) {
                return null;
            }
            if (i == 0 && !separator) {
                return null;
            }
        }
        return new PlainPath(text, subtree);
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    }

    /**
     * The path of {@code requestUri} within the application at {@code contextPath}, when it needs no
     * decoding; else null, for PathPattern to match.
     */
    static @Nullable String within(String requestUri, String contextPath) {
        if (requestUri.indexOf('%') >= 0 || requestUri.indexOf(';') >= 0 || !requestUri.startsWith(contextPath)) {
            return null;
        }
        String path = requestUri.substring(contextPath.length());
        return (path.isEmpty() || path.charAt(0) == '/') ? path : null;
    }

    /** Whether this pattern matches {@code path}, a path {@link #within} gave. */
    boolean matches(String path) {
        if (!subtree) {
            return path.equals(text);
        }
        return path.startsWith(text) && (path.length() == text.length() || path.charAt(text.length()) == '/');
    }

    @Override
    public String toString() {
        return subtree ? text + "/**" : text;
    }
}
