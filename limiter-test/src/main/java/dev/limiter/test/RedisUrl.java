package dev.limiter.test;

import java.net.URI;
import java.net.URISyntaxException;

/** A parsed {@code redis://[user:password@]host:port[/db]} address, as given in {@code LIMITER_TEST_REDIS_URL}. */
record RedisUrl(String scheme, String userInfo, String host, int port, Integer database) {

    static final int DEFAULT_PORT = 6379;

    static RedisUrl parse(String text) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw invalid(text, e.getMessage());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("redis") || scheme.equalsIgnoreCase("rediss"))) {
            throw invalid(text, "the scheme must be redis:// or rediss://");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw invalid(text, "no host");
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1); // IPv6 literal
        }
        int port = uri.getPort() == -1 ? DEFAULT_PORT : uri.getPort();
        if (port < 1 || port > 65535) {
            throw invalid(text, "port out of range");
        }
        Integer database = null;
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                database = -1;
            }
            if (database < 0) {
                throw invalid(text, "the path must be a database number such as /0");
            }
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw invalid(text, "query and fragment are not supported");
        }
        return new RedisUrl(scheme.toLowerCase(java.util.Locale.ROOT), uri.getRawUserInfo(), host, port, database);
    }

    /** The address again, with explicit port; user info and database kept as written. */
    @Override
    public String toString() {
        StringBuilder url = new StringBuilder(scheme).append("://");
        if (userInfo != null) {
            url.append(userInfo).append('@');
        }
        url.append(hostForUrl(host)).append(':').append(port);
        if (database != null) {
            url.append('/').append(database);
        }
        return url.toString();
    }

    static String hostForUrl(String host) {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException(Settings.URL_ENV + " must look like redis://[user:password@]host:port[/db], but '"
                + masked(text) + "' is invalid: " + why);
    }

    /** The text with any password replaced by ***, for messages that may end up in build logs. */
    static String masked(String text) {
        return text.replaceAll("(://[^/@:]*):[^/@]*@", "$1:***@");
    }
}
