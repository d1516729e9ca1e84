package dev.limiter.spring.internal.interceptor;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Matches methods annotated with {@code @RateLimited}, and public methods of annotated types. */
final class RateLimitedPointcut extends StaticMethodMatcherPointcut {

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return RateLimitedMethods.find(method, targetClass) != null;
    }
}
