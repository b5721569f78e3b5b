#include <stdio.h>
#include <editline/readline.h>
