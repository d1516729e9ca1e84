package dev.limiter.sample;

import java.util.List;

import dev.limiter.spring.RateLimited;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The orders API. Each user, identified by the {@code X-User-Id} header, gets the limit of the
 * limiter {@code orders} configured in application.yml; beyond it the answer is 429.
 */
@RestController
@RequestMapping("/api")
public class OrderController {

    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    @GetMapping("/orders")
    @RateLimited(name = "orders", key = "#userId")
    public List<Order> orders(@RequestHeader("X-User-Id") String userId) {
        return orders.ordersOf(userId);
    }
}
