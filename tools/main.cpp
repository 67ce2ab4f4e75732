#include <iostream>
int main() { std::cout << "spmvkit\n"; }
