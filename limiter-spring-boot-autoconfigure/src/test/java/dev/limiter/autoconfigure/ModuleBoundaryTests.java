package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The boundaries between Limiter's jars, as docs/versioning.md states them: no package lies in two
 * jars, and no public type of an API package shows a type of an {@code internal} package (public only
 * for Limiter's own modules) in what an application can call, extend or read.
 */
class ModuleBoundaryTests {

    /** Limiter's main jars on this class path (their classes directories in a reactor build), by module. */
    private static final List<String> MODULES = List.of("limiter-core", "limiter-redis", "limiter-spring",
            "limiter-spring-boot-autoconfigure", "limiter-test");

    @Test
    void noPackageLiesInTwoJars() {
        Map<String, Set<String>> modulesByPackage = new TreeMap<>();
        classesByModule().forEach((module, classes) -> classes
            .forEach((name) -> modulesByPackage.computeIfAbsent(packageOf(name), (p) -> new TreeSet<>()).add(module)));
        assertThat(modulesByPackage).as("packages of Limiter's jars").isNotEmpty().containsKey("dev.limiter.internal");
        assertThat(modulesByPackage).allSatisfy((pkg, modules) -> assertThat(modules).as("jars holding package " + pkg).hasSize(1));
    }

    @Test
    void apiTypesShowNoInternalType() {
        List<String> leaks = new ArrayList<>();
        int apiTypes = 0;
        for (Collection<String> classes : classesByModule().values()) {
            for (String name : classes) {
                if (isInternal(name)) {
                    continue;
                }
                Class<?> type = load(name);
                if (!isVisible(type)) {
                    continue;
                }
                apiTypes++;
                leaks.addAll(internalTypesShownBy(type));
            }
        }
        assertThat(apiTypes).as("public types of API packages").isGreaterThan(30);
        assertThat(leaks).as("internal types in the signatures of API types").isEmpty();
    }

    @Test
    void theCheckFindsAnInternalTypeInAnApiSignature() {
        assertThat(internalTypesShownBy(Leaky.class)).singleElement().asString().contains("dev.limiter.internal.LimiterArguments");
    }

    /** What the check must catch: an internal type as the return type of a public method. */
    public static class Leaky {

        public dev.limiter.internal.LimiterArguments arguments() {
            return null;
        }
    }

    private static List<String> internalTypesShownBy(Class<?> type) {
        List<String> leaks = new ArrayList<>();
        check(type.getGenericSuperclass(), type.getName() + " extends", leaks);
        for (Type implemented : type.getGenericInterfaces()) {
            check(implemented, type.getName() + " implements", leaks);
        }
        for (Method method : type.getDeclaredMethods()) {
            if (shown(method.getModifiers()) && !method.isSynthetic()) {
                String where = type.getName() + "." + method.getName() + "()";
                check(method.getGenericReturnType(), where, leaks);
                for (Type parameter : method.getGenericParameterTypes()) {
                    check(parameter, where, leaks);
                }
            }
        }
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (shown(constructor.getModifiers()) && !constructor.isSynthetic()) {
                for (Type parameter : constructor.getGenericParameterTypes()) {
                    check(parameter, type.getName() + " constructor", leaks);
                }
            }
        }
        for (Field field : type.getDeclaredFields()) {
            if (shown(field.getModifiers()) && !field.isSynthetic()) {
                check(field.getGenericType(), type.getName() + "." + field.getName(), leaks);
            }
        }
        return leaks;
    }

    private static void check(Type type, String where, List<String> leaks) {
        if (type instanceof Class<?> raw) {
            Class<?> element = raw;
            while (element.isArray()) {
                element = element.getComponentType();
            }
            if (isInternal(element.getName())) {
                leaks.add(where + " shows " + element.getName());
            }
        }
        else if (type instanceof ParameterizedType parameterized) {
            check(parameterized.getRawType(), where, leaks);
            for (Type argument : parameterized.getActualTypeArguments()) {
                check(argument, where, leaks);
            }
        }
        else if (type instanceof GenericArrayType array) {
            check(array.getGenericComponentType(), where, leaks);
        }
        else if (type instanceof WildcardType wildcard) {
            Stream.concat(Stream.of(wildcard.getUpperBounds()), Stream.of(wildcard.getLowerBounds())).forEach((bound) -> check(bound, where, leaks));
        }
    }

    private static boolean shown(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** A type an application can name: public, and nested only in types it can name. */
    private static boolean isVisible(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic()) {
                return false;
            }
        }
        return true;
    }

    private static boolean isInternal(String className) {
        return packageOf(className).matches("(.+\\.)?internal(\\..+)?");
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return (dot < 0) ? "" : className.substring(0, dot);
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, ModuleBoundaryTests.class.getClassLoader());
        }
        catch (ClassNotFoundException | LinkageError ex) {
            throw new AssertionError("Cannot load " + name, ex);
        }
    }

    /** Class names of each of Limiter's main jars, found on the class path by the module's folder or jar name. */
    private static Map<String, List<String>> classesByModule() {
        Map<String, List<String>> byModule = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            String module = moduleOf(path);
            if (module != null) {
                byModule.computeIfAbsent(module, (m) -> new ArrayList<>()).addAll(classNames(path));
            }
        }
        assertThat(byModule.keySet()).as("Limiter's jars on the class path").containsAll(MODULES);
        return byModule;
    }

    private static String moduleOf(Path entry) {
        String text = entry.toString().replace('\\', '/');
        for (String module : MODULES) {
            if (text.endsWith("/" + module + "/target/classes") || entry.getFileName().toString().matches(module + "-\\d.*(?<!-tests)\\.jar")) {
                return module;
            }
        }
        return null;
    }

    private static List<String> classNames(Path entry) {
        try {
            if (Files.isDirectory(entry)) {
                try (Stream<Path> files = Files.walk(entry)) {
                    return files.filter((f) -> f.toString().endsWith(".class"))
                        .map((f) -> entry.relativize(f).toString().replace('\\', '/'))
                        .map(ModuleBoundaryTests::className)
                        .filter((name) -> !name.endsWith("package-info") && !name.equals("module-info"))
                        .toList();
                }
            }
            try (JarFile jar = new JarFile(entry.toFile())) {
                return jar.stream()
                    .map((e) -> e.getName())
                    .filter((name) -> name.endsWith(".class") && !name.startsWith("META-INF/"))
                    .map(ModuleBoundaryTests::className)
                    .filter((name) -> !name.endsWith("package-info") && !name.equals("module-info"))
                    .toList();
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static String className(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }
}
