package dev.limiter.sample;

import java.math.BigDecimal;
import java.util.List;

import org.springframework.stereotype.Service;

/** Looks up a user's orders; a stand-in for a real repository. */
@Service
public class OrderService {

    public List<Order> ordersOf(String userId) {
        return List.of(new Order("o-1001", userId, "coffee beans", 2, new BigDecimal("23.80")),
                new Order("o-1002", userId, "grinder", 1, new BigDecimal("89.00")));
    }
}
