package dev.limiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * docs/gateway.md against this module, which limiter-spring-boot-autoconfigure's DocumentationTests cannot
 * see: every import of its Java examples names a class, and every {@code limiter.gateway.*} name it gives
 * is a property of this module's configuration metadata.
 */
class GatewayDocumentationTests {

    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+?)\\s*;", Pattern.MULTILINE);

    private static final Pattern GATEWAY_PROPERTY = Pattern.compile("(?<![\\w.])limiter\\.gateway\\.[a-z0-9-]+");

    @Test
    void theJavaExamplesImportClassesThatExist() throws IOException {
        List<String> missing = new ArrayList<>();
        Matcher imports = IMPORT.matcher(page());
        int count = 0;
        while (imports.find()) {
            count++;
            String name = imports.group(2);
            String type = (imports.group(1) != null) ? name.substring(0, name.lastIndexOf('.')) : name;
            try {
                Class.forName(type, false, getClass().getClassLoader());
            }
            catch (ClassNotFoundException ex) {
                missing.add(name);
            }
        }
        assertThat(count).as("imports in docs/gateway.md").isGreaterThan(3);
        assertThat(missing).as("imports naming no class").isEmpty();
    }

    @Test
    void theGatewayPropertiesNamedExist() throws IOException {
        String metadata;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("this module's configuration metadata").isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher names = GATEWAY_PROPERTY.matcher(page());
        List<String> unknown = new ArrayList<>();
        int count = 0;
        while (names.find()) {
            count++;
            if (!metadata.contains("\"name\": \"" + names.group() + "\"") && !metadata.contains("\"name\":\"" + names.group() + "\"")) {
                unknown.add(names.group());
            }
        }
        assertThat(count).as("limiter.gateway properties in docs/gateway.md").isPositive();
        assertThat(unknown).as("limiter.gateway names that are no property").isEmpty();
    }

    private static String page() throws IOException {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs/gateway.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a folder with docs/gateway.md above " + Path.of("").toAbsolutePath()).isNotNull();
        return Files.readString(dir.resolve("docs/gateway.md"));
    }
}
