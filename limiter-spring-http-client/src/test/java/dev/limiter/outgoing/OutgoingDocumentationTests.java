package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.limiter.outgoing.internal.OutgoingRoute;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docs/outgoing-calls.md against this module, which limiter-spring-boot-autoconfigure's DocumentationTests
 * cannot see: every import of its Java examples names a class, and its YAML routes use only the route
 * properties and build.
 */
class OutgoingDocumentationTests {

    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+?)\\s*;", Pattern.MULTILINE);

    private static final Pattern YAML = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theJavaExamplesImportClassesThatExist() throws IOException {
        List<String> missing = new ArrayList<>();
        Matcher imports = IMPORT.matcher(page());
        int count = 0;
        while (imports.find()) {
            count++;
            try {
                Class.forName(imports.group(2), false, getClass().getClassLoader());
            }
            catch (ClassNotFoundException ex) {
                missing.add(imports.group(2));
            }
        }
        assertThat(count).as("imports in docs/outgoing-calls.md").isGreaterThan(3);
        assertThat(missing).as("imports naming no class").isEmpty();
    }

    @Test
    void theYamlRoutesUseRouteProperties() throws IOException {
        Matcher blocks = YAML.matcher(page());
        int routes = 0;
        while (blocks.find()) {
            Map<String, Object> document = new Yaml().load(blocks.group(1));
            @SuppressWarnings("unchecked")
            List<Map<String, String>> outgoing = (List<Map<String, String>>) ((Map<String, Object>) document.get("limiter")).get("outgoing");
            for (int i = 0; i < outgoing.size(); i++) {
                Map<String, String> route = outgoing.get(i);
                assertThat(route.keySet()).isSubsetOf(Set.of("host", "url", "limiter", "key"));
                OutgoingRoute.of("limiter.outgoing[" + i + "]", route.get("host"), route.get("url"), route.get("limiter"), route.get("key"));
                routes++;
            }
        }
        assertThat(routes).isPositive();
    }

    private static String page() throws IOException {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs/outgoing-calls.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a folder with docs/outgoing-calls.md above " + Path.of("").toAbsolutePath()).isNotNull();
        return Files.readString(dir.resolve("docs/outgoing-calls.md"));
    }
}
