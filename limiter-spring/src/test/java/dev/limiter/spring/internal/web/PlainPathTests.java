package dev.limiter.spring.internal.web;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.http.server.RequestPath;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import static org.assertj.core.api.Assertions.assertThat;

/** Plain-text matching agrees with Spring's PathPattern wherever it applies, and steps aside elsewhere. */
class PlainPathTests {

    private static final List<String> PATTERNS = List.of("/**", "/api/**", "/api", "/api/orders", "/api/orders/**", "/a.b/c-d/**",
            "/API/**", "/v1/~x_y/**");

    private static final List<String> PATHS = List.of("", "/", "/api", "/api/", "/api/orders", "/api/orders/", "/api/orders/1",
            "/api/ordersx", "/apix", "/apix/y", "/API/orders", "/api//orders", "//api/orders", "/a.b/c-d", "/a.b/c-d/e", "/a.b/c-dx",
            "/v1/~x_y", "/v1/~x_y/z", "/other", "/api/orders/1/items");

    @Test
    void agreesWithPathPatternOnEveryPlainPatternAndPath() {
        List<String> checked = new ArrayList<>();
        List<String> matched = new ArrayList<>();
        for (String text : PATTERNS) {
            PathPattern pattern = PathPatternParser.defaultInstance.parse(text);
            PlainPath plain = PlainPath.of(text);
            assertThat(plain).as(text).isNotNull();
            for (String contextPath : List.of("", "/app")) {
                for (String path : PATHS) {
                    String uri = contextPath + path;
                    String within = PlainPath.within(uri, contextPath);
                    assertThat(within).as(uri).isEqualTo(path);
                    boolean expected = pattern.matches(RequestPath.parse(uri, contextPath).pathWithinApplication());
                    assertThat(plain.matches(within)).as("%s against %s (context path '%s')", text, path, contextPath).isEqualTo(expected);
                    checked.add(text + " " + uri);
                    if (expected) {
                        matched.add(text + " " + uri);
                    }
                }
            }
        }
        assertThat(checked).hasSize(PATTERNS.size() * PATHS.size() * 2);
        // Both answers occur: the comparison is not of a pattern that matches everything or nothing.
        assertThat(matched).isNotEmpty().hasSizeLessThan(checked.size());
    }

    @Test
    void patternsWithWildcardsVariablesOrEscapesAreNotPlain() {
        for (String text : List.of("/api/*", "/api/*.json", "/api/{id}", "/api/{*rest}", "/api/o?ders", "/api/%20", "/api;v=1/**", "/api/",
                "/api//orders", "api/**", "/api/**/x", "/api/:x", "")) {
            assertThat(PlainPath.of(text)).as(text).isNull();
        }
    }

    @Test
    void pathsThatNeedDecodingAreLeftToPathPattern() {
        assertThat(PlainPath.within("/api/caf%C3%A9", "")).isNull();
        assertThat(PlainPath.within("/api/orders;jsessionid=1", "")).isNull();
        assertThat(PlainPath.within("/appx/orders", "/app")).isNull();
        assertThat(PlainPath.within("/other/orders", "/app")).isNull();
        assertThat(PlainPath.within("/app", "/app")).isEmpty();
    }
}
