int sl_api(int n);
int main(int argc, char **argv) { (void)argv; return sl_api(argc * 1000) & 0x7f; }
