#include <bluetooth/bluetooth.h>
