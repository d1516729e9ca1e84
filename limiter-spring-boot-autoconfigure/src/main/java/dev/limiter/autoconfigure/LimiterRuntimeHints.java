package dev.limiter.autoconfigure;

import java.lang.reflect.Method;

import dev.limiter.spring.RateLimited;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What a native image needs of Limiter beyond what Spring infers: the Lua scripts, read as class-path
 * resources, and every {@code @RateLimited} method with its fallback methods, found and called
 * reflectively. Resources are registered once (aot.factories); methods per bean, at build time.
 */
final class LimiterRuntimeHints implements RuntimeHintsRegistrar, BeanRegistrationAotProcessor {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern("dev/limiter/internal/algorithm/*.lua").registerPattern("dev/limiter/redis/*.lua");
    }

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        Class<?> type = ClassUtils.getUserClass(bean.getBeanClass());
        if (!hasRateLimitedMethods(type)) {
            return null;
        }
        return (GenerationContext context, BeanRegistrationCode code) -> registerMethods(type, context.getRuntimeHints());
    }

    private static boolean hasRateLimitedMethods(Class<?> type) {
        if (type.getName().startsWith("java.") || type.getName().startsWith("org.springframework.")) {
            return false;
        }
        boolean[] found = new boolean[1];
        ReflectionUtils.doWithMethods(type, (method) -> found[0] = true,
                (method) -> !found[0] && AnnotatedElementUtils.hasAnnotation(method, RateLimited.class));
        return found[0];
    }

    /** The limited methods of {@code type}, and every method named as a fallback of one of them. */
    static void registerMethods(Class<?> type, RuntimeHints hints) {
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
            RateLimited limited = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
            if (limited == null) {
                continue;
            }
            hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
            String fallback = limited.fallbackMethod().trim();
            if (!fallback.isEmpty()) {
                for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
                    if (candidate.getName().equals(fallback)) {
                        hints.reflection().registerMethod(candidate, ExecutableMode.INVOKE);
                    }
                }
            }
        }
    }
}
