package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
)

// MARK: - Catalog

// product is one entry of products.json, as the catalog screen reads it.
type product struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Price    struct {
		AmountInCents int64  `json:"amountInCents"`
		Currency      string `json:"currency"`
	} `json:"price"`
	Stock  int  `json:"stock"`
	Listed bool `json:"listed"`
}

// loadCatalog reads the listed products of a products.json, in catalog order.
func loadCatalog(path string) ([]product, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Products []product `json:"products"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		return nil, err
	}
	listed := file.Products[:0]
	for _, p := range file.Products {
		if p.Listed {
			listed = append(listed, p)
		}
	}
	return listed, nil
}

// displayPrice is the price as a customer reads it: €1,299.00, -$5.00, or 1,000.00 CHF for a currency without a
// symbol.
func displayPrice(amountInCents int64, currency string) string {
	sign := ""
	magnitude := uint64(amountInCents)
	if amountInCents < 0 {
		sign = "-"
		magnitude = -magnitude // two's complement: the magnitude of math.MinInt64 too
	}
	digits := strconv.FormatUint(magnitude/100, 10)
	var grouped strings.Builder
	for i, digit := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			grouped.WriteByte(',')
		}
		grouped.WriteRune(digit)
	}
	number := grouped.String() + "." + leftPadded(magnitude%100)
	symbols := map[string]string{"EUR": "€", "USD": "$", "GBP": "£"}
	if symbol, ok := symbols[currency]; ok {
		return sign + symbol + number
	}
	return sign + number + " " + currency
}

func leftPadded(cents uint64) string {
	if cents < 10 {
		return "0" + strconv.FormatUint(cents, 10)
	}
	return strconv.FormatUint(cents, 10)
}

// filterByName keeps the products whose name contains text, ignoring case and the white space around it; all of
// them when it is blank.
func filterByName(products []product, text string) []product {
	query := strings.ToLower(strings.TrimSpace(text))
	if query == "" {
		return products
	}
	var matches []product
	for _, p := range products {
		if strings.Contains(strings.ToLower(strings.TrimSpace(p.Name)), query) {
			matches = append(matches, p)
		}
	}
	return matches
}

// MARK: - The screen's state on the wire

type productRow struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Category  string `json:"category"`
	Price     string `json:"price"`
	IsInStock bool   `json:"isInStock"`
}

type catalogValue struct {
	Filter     string       `json:"filter"`
	Products   []productRow `json:"products"`
	MatchCount int          `json:"matchCount"`
	TotalCount int          `json:"totalCount"`
}

type catalogState struct {
	Status string       `json:"status"`
	Value  catalogValue `json:"value"`
}

// stateOf is the catalog screen's state with the filter text applied.
func stateOf(products []product, text string) catalogState {
	matches := filterByName(products, text)
	rows := make([]productRow, 0, len(matches))
	for _, p := range matches {
		rows = append(rows, productRow{
			ID:        p.ID,
			Name:      p.Name,
			Category:  p.Category,
			Price:     displayPrice(p.Price.AmountInCents, p.Price.Currency),
			IsInStock: p.Stock > 0,
		})
	}
	return catalogState{
		Status: "loaded",
		Value:  catalogValue{Filter: text, Products: rows, MatchCount: len(rows), TotalCount: len(products)},
	}
}

// sameState says whether two states show the same thing.
func sameState(a, b catalogState) bool {
	if a.Status != b.Status || a.Value.Filter != b.Value.Filter || a.Value.MatchCount != b.Value.MatchCount ||
		a.Value.TotalCount != b.Value.TotalCount || len(a.Value.Products) != len(b.Value.Products) {
		return false
	}
	for i := range a.Value.Products {
		if a.Value.Products[i] != b.Value.Products[i] {
			return false
		}
	}
	return true
}
