package dev.limiter.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.beans.BeanUtils;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the documentation honest, so that it cannot drift from the code:
 * <ul>
 * <li>docs/configuration.md lists exactly the properties of the configuration metadata that
 *     spring-boot-configuration-processor generates from {@link LimiterProperties} (nested limiters, plans
 *     and rules expanded from their classes), with the metadata's defaults;</li>
 * <li>every {@code limiter.*} property that the pages name, and every key of their YAML examples,
 *     exists;</li>
 * <li>the README's quick start is, word for word, the sources and YAML that {@code QuickStartTests} in
 *     sample-app compiles and runs;</li>
 * <li>every Java snippet imports the Limiter types and the annotations it uses, and every import names a
 *     class that exists;</li>
 * <li>every relative link of README.md, BENCHMARKS.md and docs/*.md points at a file that exists and, with
 *     a {@code #fragment}, at one of its headings.</li>
 * </ul>
 */
class DocumentationTests {

    private static final Path ROOT = repositoryRoot();

    /** Names that look like properties but are meters, observations or test settings. */
    private static final Set<String> NOT_PROPERTIES = Set.of("limiter.decisions", "limiter.decision", "limiter.near_limit",
            "limiter.redis.duration", "limiter.failure.policy.active", "limiter.concurrency.in.use", "limiter.concurrency.limit",
            "limiter.concurrency.decisions", "limiter.concurrency.wait", "limiter.settle.failures",
            // Arguments of the gateway's RequestRateLimiter filter (args.limiter.name, args.limiter.cost), not
            // properties: the gateway module's tests use them on running routes.
            "limiter.name", "limiter.cost");

    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*([\\w-]*)\\s*$");

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");

    private static final Pattern TABLE_ROW_PROPERTY = Pattern.compile("^\\|\\s*`([^`]+)`\\s*\\|([^|]*)\\|");

    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);

    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    private static final Pattern ANNOTATION = Pattern.compile("@([A-Z]\\w*)");

    private static final Set<String> JAVA_LANG_ANNOTATIONS = Set.of("Override", "FunctionalInterface", "Deprecated",
            "SuppressWarnings", "SafeVarargs");

    // The configuration reference

    @Test
    void theConfigurationReferenceListsEveryPropertyAndNoOther() {
        Set<String> documented = documentedProperties().keySet();
        Set<String> known = knownProperties();
        assertThat(difference(known, documented)).as("properties missing from docs/configuration.md").isEmpty();
        assertThat(difference(documented, known)).as("rows of docs/configuration.md naming no property").isEmpty();
    }

    @Test
    void theConfigurationReferenceGivesTheMetadatasDefaults() {
        Map<String, String> documented = documentedProperties();
        Map<String, String> wrong = new TreeMap<>();
        for (Map<String, Object> property : metadataProperties()) {
            Object defaultValue = property.get("defaultValue");
            String name = (String) property.get("name");
            if (defaultValue != null && documented.containsKey(name)
                    && !documented.get(name).contains("`" + defaultValue + "`")) {
                wrong.put(name, "metadata says `" + defaultValue + "`, docs/configuration.md says" + documented.get(name));
            }
        }
        assertThat(wrong).as("defaults in docs/configuration.md").isEmpty();
    }

    @Test
    void everyPropertyHasADescriptionForIdes() {
        List<String> undescribed = metadataProperties().stream()
            .filter((property) -> property.get("description") == null || property.get("description").toString().isBlank())
            .map((property) -> (String) property.get("name"))
            .toList();
        assertThat(undescribed).as("properties without javadoc").isEmpty();
    }

    @Test
    void theHintsNameValuesThatBind() {
        List<Map<String, Object>> hints = JsonPath.read(metadata(), "$.hints[*]");
        assertThat(hints).extracting((hint) -> hint.get("name"))
            .contains("limiter.backend", "limiter.on-redis-failure", "limiter.on-missing-key", "limiter.client-ip.forwarded-header");
        Map<String, Object> types = new HashMap<>();
        metadataProperties().forEach((property) -> types.put((String) property.get("name"), property.get("type")));
        for (Map<String, Object> hint : hints) {
            String name = (String) hint.get("name");
            assertThat(types).as("a hint for a property that exists").containsKey(name);
            Class<?> type = load(types.get(name).toString()).orElseThrow();
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> values = (List<Map<String, Object>>) hint.get("values");
            Set<String> constants = new TreeSet<>();
            for (Object constant : type.getEnumConstants()) {
                constants.add(((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            assertThat(values).extracting((value) -> value.get("value").toString())
                .as("the values hinted for %s are those of %s", name, type.getSimpleName())
                .containsExactlyInAnyOrderElementsOf(constants);
            assertThat(values).allSatisfy((value) -> assertThat(value.get("description")).isNotNull());
        }
    }

    @Test
    void thePropertiesThePagesNameExist() {
        Set<String> known = knownProperties();
        Map<String, Set<String>> unknown = new TreeMap<>();
        for (Path page : pages()) {
            for (String line : prose(page)) {
                Matcher span = CODE_SPAN.matcher(line);
                while (span.find()) {
                    String text = span.group().substring(1, span.group().length() - 1);
                    String name = text.split("[=\\s:]", 2)[0];
                    if (looksLikeProperty(name) && !isKnown(normalize(name), known)) {
                        unknown.computeIfAbsent(relative(page), (p) -> new TreeSet<>()).add(name);
                    }
                }
            }
        }
        assertThat(unknown).as("property names in the pages that are no property").isEmpty();
    }

    @Test
    void theYamlExamplesUseOnlyPropertiesThatExist() {
        Set<String> known = knownProperties();
        Map<String, Set<String>> unknown = new TreeMap<>();
        for (Path page : pages()) {
            for (CodeBlock block : codeBlocks(page)) {
                if (!block.language().equals("yaml")) {
                    continue;
                }
                Object document = new Yaml().load(block.text());
                if (document instanceof Map<?, ?> map && map.get("limiter") != null) {
                    Set<String> keys = new TreeSet<>();
                    flatten("limiter", map.get("limiter"), known, keys);
                    keys.stream().filter((key) -> !known.contains(key) && !isOfTheGatewayModule(key))
                        .forEach((key) -> unknown.computeIfAbsent(relative(page) + ":" + block.line(), (p) -> new TreeSet<>()).add(key));
                }
            }
        }
        assertThat(unknown).as("YAML keys that are no property").isEmpty();
    }

    // The quick start

    @Test
    void theReadmesQuickStartIsWhatQuickStartTestsRuns() throws IOException {
        List<CodeBlock> quickStart = codeBlocks(ROOT.resolve("README.md"), "Quick start");
        Path sources = ROOT.resolve("sample-app/src/test/java/com/example/orders");
        assertThat(sources.resolve("QuickStartTests.java")).exists();
        Set<String> expected = new LinkedHashSet<>();
        try (Stream<Path> files = Files.list(sources)) {
            for (Path file : files.filter((f) -> !f.endsWith("QuickStartTests.java")).sorted().toList()) {
                expected.add(withoutPackage(Files.readString(file)));
            }
        }
        Set<String> shown = quickStart.stream().filter((block) -> block.language().equals("java"))
            .map((block) -> block.text().strip() + "\n").collect(Collectors.toCollection(LinkedHashSet::new));
        assertThat(shown).as("the README's quick start Java, against %s", relative(sources))
            .containsExactlyInAnyOrderElementsOf(expected);
        String yaml = Files.readString(ROOT.resolve("sample-app/src/test/resources/quickstart/application.yml"));
        assertThat(quickStart).filteredOn((block) -> block.language().equals("yaml")).singleElement()
            .satisfies((block) -> assertThat(block.text().strip()).isEqualTo(yaml.strip()));
    }

    @Test
    void theInstalledArtifactsAreModulesOfThisBuild() throws IOException {
        Pattern artifact = Pattern.compile("<groupId>dev\\.limiter</groupId>\\s*<artifactId>([\\w-]+)</artifactId>");
        for (Path page : pages()) {
            for (CodeBlock block : codeBlocks(page)) {
                Matcher matcher = artifact.matcher(block.text());
                while (matcher.find()) {
                    assertThat(ROOT.resolve(matcher.group(1)).resolve("pom.xml")).as("%s in %s", matcher.group(1), relative(page))
                        .exists();
                }
            }
        }
    }

    // Java snippets

    @Test
    void javaSnippetsImportTheLimiterTypesAndAnnotationsTheyUse() {
        Map<String, String> limiterTypes = limiterTypes();
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            for (CodeBlock block : codeBlocks(page)) {
                if (!block.language().equals("java")) {
                    continue;
                }
                String where = relative(page) + ":" + block.line();
                Set<String> imported = new TreeSet<>();
                Set<String> importedPackages = new TreeSet<>();
                Matcher packageLine = PACKAGE.matcher(block.text());
                if (packageLine.find()) {
                    importedPackages.add(packageLine.group(1));
                }
                Matcher imports = IMPORT.matcher(block.text());
                while (imports.find()) {
                    String name = imports.group(2);
                    boolean isStatic = imports.group(1) != null;
                    boolean onDemand = imports.group(3) != null;
                    String type = (isStatic && !onDemand) ? name.substring(0, name.lastIndexOf('.')) : name;
                    if (onDemand && !isStatic) {
                        importedPackages.add(name);
                    }
                    else if (load(type).isEmpty() && !isOfTheGatewayModule(type)) {
                        problems.add(where + ": import " + name + " names no class");
                    }
                    imported.add(name.substring(name.lastIndexOf('.') + 1));
                }
                String code = withoutCommentsAndStrings(IMPORT.matcher(PACKAGE.matcher(block.text()).replaceAll(""))
                    .replaceAll(""));
                for (Map.Entry<String, String> type : limiterTypes.entrySet()) {
                    String packageName = type.getValue().substring(0, type.getValue().lastIndexOf('.'));
                    if (Pattern.compile("\\b" + type.getKey() + "\\b").matcher(code).find() && !imported.contains(type.getKey())
                            && !importedPackages.contains(packageName) && !declares(code, type.getKey())) {
                        problems.add(where + ": uses " + type.getKey() + " without import " + type.getValue() + ";");
                    }
                }
                Matcher annotation = ANNOTATION.matcher(code);
                while (annotation.find()) {
                    String name = annotation.group(1);
                    if (!imported.contains(name) && !JAVA_LANG_ANNOTATIONS.contains(name) && !declares(code, name)) {
                        problems.add(where + ": uses @" + name + " without importing it");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    // Links

    @Test
    void relativeLinksPointAtFilesAndHeadingsThatExist() {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = prose(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher link = LINK.matcher(CODE_SPAN.matcher(lines.get(i)).replaceAll(""));
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z][a-z0-9+.-]*:.*") || target.startsWith("<")) {
                        continue;
                    }
                    String where = relative(page) + ": (" + target + ")";
                    int hash = target.indexOf('#');
                    String file = (hash >= 0) ? target.substring(0, hash) : target;
                    Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    if (!Files.exists(linked)) {
                        broken.add(where + ": no file " + relative(linked));
                    }
                    else if (hash >= 0 && linked.toString().endsWith(".md") && !anchors(linked).contains(target.substring(hash + 1))) {
                        broken.add(where + ": no heading #" + target.substring(hash + 1) + " in " + relative(linked));
                    }
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    // Markdown

    /** README.md, BENCHMARKS.md and every page of docs/. */
    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("BENCHMARKS.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter((file) -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return pages;
    }

    record CodeBlock(String language, String text, int line) {
    }

    private static List<CodeBlock> codeBlocks(Path page) {
        return codeBlocks(page, null);
    }

    /** The fenced blocks of a page, or of its section (a heading of level 2, up to the next one). */
    private static List<CodeBlock> codeBlocks(Path page, String section) {
        List<CodeBlock> blocks = new ArrayList<>();
        List<String> lines = lines(page);
        boolean inSection = (section == null);
        String language = null;
        StringBuilder text = null;
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher fence = FENCE.matcher(line);
            if (text == null) {
                if (line.startsWith("## ") && section != null) {
                    inSection = line.substring(3).strip().equals(section);
                }
                else if (fence.matches()) {
                    language = fence.group(1);
                    text = new StringBuilder();
                    start = i + 1;
                }
            }
            else if (line.strip().equals("```")) {
                if (inSection) {
                    blocks.add(new CodeBlock(language, dedent(text.toString()), start));
                }
                text = null;
            }
            else {
                text.append(line).append('\n');
            }
        }
        return blocks;
    }

    /** A block inside a list item is indented; its code is not. */
    private static String dedent(String text) {
        int indent = text.lines().filter((line) -> !line.isBlank())
            .mapToInt((line) -> line.length() - line.stripLeading().length()).min().orElse(0);
        return text.lines().map((line) -> line.isBlank() ? "" : line.substring(indent)).collect(Collectors.joining("\n")) + "\n";
    }

    /** The lines of a page outside fenced blocks. */
    private static List<String> prose(Path page) {
        List<String> prose = new ArrayList<>();
        boolean inBlock = false;
        for (String line : lines(page)) {
            if (FENCE.matcher(line).matches() || (inBlock && line.strip().equals("```"))) {
                inBlock = !inBlock;
            }
            else if (!inBlock) {
                prose.add(line);
            }
        }
        return prose;
    }

    /** The anchors GitHub gives the headings of a page. */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(page)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String text = heading.group(2).replaceAll("\\[([^\\]]*)]\\([^)]*\\)", "$1");
                String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
            }
        }
        return anchors;
    }

    private static List<String> lines(Path page) {
        try {
            return Files.readAllLines(page, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    // Properties

    /** The rows of docs/configuration.md's tables: property name (normalized) to its default cell. */
    private static Map<String, String> documentedProperties() {
        Map<String, String> documented = new TreeMap<>();
        for (String line : prose(ROOT.resolve("docs/configuration.md"))) {
            Matcher row = TABLE_ROW_PROPERTY.matcher(line);
            if (row.find() && looksLikeProperty(row.group(1))) {
                String name = normalize(row.group(1));
                assertThat(documented).as("%s is listed once", name).doesNotContainKey(name);
                documented.put(name, row.group(2));
            }
        }
        return documented;
    }

    /**
     * Every property: those of the metadata, with maps and lists of Limiter's nested classes (limiters,
     * plans, rules, limits), which the metadata holds as one property, expanded into theirs.
     */
    private static Set<String> knownProperties() {
        Set<String> known = new TreeSet<>();
        for (Map<String, Object> property : metadataProperties()) {
            String name = (String) property.get("name");
            known.add(name);
            String type = (String) property.get("type");
            Matcher map = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,(.+)>").matcher(type);
            Matcher list = Pattern.compile("java\\.util\\.List<(.+)>").matcher(type);
            if (map.matches() && isNested(map.group(1))) {
                expand(name + ".<*>.", load(map.group(1)).orElseThrow(), known);
            }
            else if (list.matches() && isNested(list.group(1))) {
                expand(name + "[*].", load(list.group(1)).orElseThrow(), known);
            }
        }
        return known;
    }

    private static boolean isNested(String type) {
        return type.startsWith(LimiterProperties.class.getName() + "$");
    }

    private static void expand(String prefix, Class<?> type, Set<String> known) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            String name = prefix + property.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
            Type returned = property.getReadMethod().getGenericReturnType();
            if (returned instanceof Class<?> nested && nested.getDeclaringClass() == LimiterProperties.class) {
                expand(name + ".", nested, known);
            }
            else if (returned instanceof ParameterizedType generic && generic.getActualTypeArguments()[generic.getActualTypeArguments().length - 1] instanceof Class<?> element
                    && element.getDeclaringClass() == LimiterProperties.class) {
                expand(name + ((generic.getRawType() == Map.class) ? ".<*>." : "[*]."), element, known);
            }
            else {
                known.add(name);
            }
        }
    }

    /**
     * Whether {@code type} is of limiter-spring-cloud-gateway or limiter-spring-http-client, or of what they
     * integrate: those modules are built after this one, so their classes and properties are not on this
     * class path; their own tests check their pages (GatewayDocumentationTests, OutgoingDocumentationTests).
     */
    private static boolean isOfTheGatewayModule(String name) {
        return name.startsWith("dev.limiter.gateway.") || name.startsWith("org.springframework.cloud.gateway.") || name.equals("limiter.gateway") || name.startsWith("limiter.gateway.")
                || name.startsWith("dev.limiter.outgoing.") || name.startsWith("limiter.outgoing") || name.startsWith("org.springframework.boot.restclient.")
                || name.startsWith("org.springframework.boot.webclient.");
    }

    private static boolean looksLikeProperty(String name) {
        return (name.startsWith("limiter.") || name.startsWith("management.endpoint.limiters.")) && !name.startsWith("limiter.test.")
                && !isOfTheGatewayModule(name)
                && !NOT_PROPERTIES.contains(name) && name.matches("[a-z0-9.\\-\\[\\]<>*_]+");
    }

    /** {@code <name>}, {@code <plan>} and {@code orders} alike: map keys and list indexes as wildcards. */
    private static String normalize(String name) {
        return name.replaceAll("<[^>]*>", "<*>").replaceAll("\\[[^]]*]", "[*]");
    }

    /**
     * Whether {@code name} is a property, a group of properties ({@code limiter.redis},
     * {@code limiter.redis.*}) or either with its map keys filled in ({@code limiter.limiters.orders.limit}):
     * its segments lead the segments of a known property.
     */
    private static boolean isKnown(String name, Set<String> known) {
        String[] given = (name.endsWith(".*") ? name.substring(0, name.length() - 2) : name).split("\\.");
        for (String property : known) {
            String[] segments = property.split("\\.");
            boolean leads = given.length <= segments.length;
            for (int i = 0; leads && i < given.length; i++) {
                String segment = segments[i];
                leads = segment.equals(given[i]) || segment.equals("<*>")
                        || (segment.endsWith("[*]") && segment.substring(0, segment.length() - 3).equals(given[i]));
            }
            if (leads) {
                return true;
            }
        }
        return false;
    }

    /** The keys of a YAML example, map keys of the limiters and plans as {@code <*>}, list items as {@code [*]}. */
    private static void flatten(String path, Object node, Set<String> known, Set<String> keys) {
        if (node instanceof Map<?, ?> map) {
            boolean keyed = known.stream().anyMatch((property) -> property.startsWith(path + ".<*>."));
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                flatten(path + "." + (keyed ? "<*>" : entry.getKey()), entry.getValue(), known, keys);
            }
        }
        else if (node instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Map) {
            list.forEach((item) -> flatten(path + "[*]", item, known, keys));
        }
        else {
            keys.add(path);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> metadataProperties() {
        return ((List<Map<String, Object>>) (List<?>) JsonPath.read(metadata(), "$.properties[*]"));
    }

    /** This module's metadata, generated by spring-boot-configuration-processor into target/classes. */
    private static String metadata() {
        try {
            for (URL url : Collections.list(DocumentationTests.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
                if (url.getProtocol().equals("file")) {
                    try (InputStream in = url.openStream()) {
                        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    }
                }
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        throw new AssertionError("META-INF/spring-configuration-metadata.json is missing from target/classes");
    }

    // Java

    /** Simple name to class name of Limiter's public types (not its tests'). */
    private static Map<String, String> limiterTypes() {
        Map<String, String> types = new TreeMap<>();
        try {
            for (Resource resource : new PathMatchingResourcePatternResolver().getResources("classpath*:dev/limiter/**/*.class")) {
                String url = resource.getURL().toString();
                if (url.contains("/test-classes/") || url.contains("-tests.jar") || url.contains("$")) {
                    continue;
                }
                String name = url.substring(url.lastIndexOf("dev/limiter/")).replace(".class", "").replace('/', '.');
                load(name).filter((type) -> Modifier.isPublic(type.getModifiers()) && !name.endsWith("package-info"))
                    .ifPresent((type) -> types.put(type.getSimpleName(), name));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        assertThat(types).containsKeys("RateLimited", "RateLimiter", "TestRedis", "LimiterRetuner", "RedisRateLimiterFactory");
        return types;
    }

    private static boolean declares(String code, String name) {
        return Pattern.compile("\\b(class|interface|record|enum|@interface)\\s+" + name + "\\b").matcher(code).find();
    }

    private static String withoutCommentsAndStrings(String code) {
        return code.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "").replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"");
    }

    /** A class by its canonical name, nested classes included ({@code Outer.Inner}). */
    private static java.util.Optional<Class<?>> load(String name) {
        String binary = name;
        while (true) {
            try {
                return java.util.Optional.of(Class.forName(binary, false, DocumentationTests.class.getClassLoader()));
            }
            catch (ClassNotFoundException | LinkageError ex) {
                int dot = binary.lastIndexOf('.');
                if (dot < 0) {
                    return java.util.Optional.empty();
                }
                binary = binary.substring(0, dot) + "$" + binary.substring(dot + 1);
            }
        }
    }

    private static String withoutPackage(String source) {
        Matcher packageLine = PACKAGE.matcher(source);
        assertThat(packageLine.find()).isTrue();
        return source.substring(packageLine.end()).strip() + "\n";
    }

    // Files

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs")))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new AssertionError("No repository root (mvnw and docs/) above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    private static String relative(Path path) {
        return ROOT.relativize(path.toAbsolutePath().normalize()).toString();
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> difference = new TreeSet<>(a);
        difference.removeAll(b);
        return difference;
    }

}
