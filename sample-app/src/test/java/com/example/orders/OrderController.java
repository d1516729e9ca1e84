package com.example.orders;

import java.util.List;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderController {

    @GetMapping("/api/orders")
    @RateLimited(name = "orders", key = "#userId")
    List<String> orders(@RequestHeader("X-User-Id") String userId) {
        return List.of("order 1 of " + userId, "order 2 of " + userId);
    }
}
